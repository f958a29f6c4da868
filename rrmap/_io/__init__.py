"""Reading and writing tables: a file as users export it (separators, encodings, sheets,
within the reading limits), numbers from text cells, comparison keys and their pairing, the
corpora of each row; CSV, Parquet and ``results.json`` out. Private: its names may change
without notice.
"""
