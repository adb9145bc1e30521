"""Fixtures, factories and helpers the test modules share (fixture modules are registered in tests/conftest.py)."""
