"""Scoring a corpus, and the engines that score inputs: whole, streamed, in processes, on Dask."""
