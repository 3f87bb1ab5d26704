"""Experiments (layer 9): per paper, each figure's quick and full parameters and its claims."""
