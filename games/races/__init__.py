"""Races: friends on one deal, live; lifecycle, ghosts, ranks, and their rules on play."""
