"""Jobs that make networks (one module per job) over one shared loop (``loop``)."""
