"""Torch modules only: the networks, their self-describing checkpoints, and numpy-in/numpy-out
prediction around them. Importing this package imports torch."""
