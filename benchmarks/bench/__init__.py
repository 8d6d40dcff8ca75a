"""Benchmarks that print numbers: environment, search, network and league speed, strength against
GNU Go, value estimates."""
