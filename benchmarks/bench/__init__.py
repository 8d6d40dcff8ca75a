"""Benchmarks that print numbers: environment, search and league speed, strength against GNU Go."""
