"""``goarena serve``: a local web board to play any offered player, with its live analysis,
and to browse, replay and watch the leagues under a directory.

``app`` builds the ASGI app and documents its routes, ``sessions`` the live games, ``leagues``
the read-only league views, ``paths`` the resolution of every browser-given path inside the
served directory; ``static/`` holds the page (HTML, ES modules, SVG; no build step).
"""
