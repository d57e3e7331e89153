"""``solverkit study FILE``: a grid of assemblies x games x seeds solved, with curves and tables
out (docs/studies.md). runner.py runs the grid and stops it; file.py reads the study file, runs.py
starts and reads back each run, tables.py writes results.csv and summary.csv, plot.py and stats.py
draw the curves and their confidence bands."""
