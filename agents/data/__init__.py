"""Expert games as training data: GNU Go self-play records, SGF folders -> shards -> batches.

``gnugo``: GNU Go plays itself through GTP and each game becomes one SGF file (resumable).
``reader``: an SGF record as an expert game, the moves that are training targets, or the
reason it is skipped. ``shards``: a folder tree of SGF files as memory-mappable ``.npy``
shards of positions (resumable). ``dataset``: the shards read back as batches, with a
held-out split by game and the 8 board symmetries as augmentation. ``integrity``: how every
array file the project writes (shards, replay chunks) is written with its digests and checked
when read. ``pool``: the data commands' worker processes, and how a command stops.

A generated game opens with a few random moves so that games differ; those moves are not
expert moves. They are kept as ordinary moves of the record (so the positions after them have
their true history) and each carries the comment ``RANDOM_OPENING``; the reader takes the
moves after the last of them as targets. Records without the comment (a KGS or professional
archive) have every move as a target.
"""
