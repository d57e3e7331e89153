"""``solverkit report RUN``: one self-contained HTML page about a solve (build.py), with its
parts: the run's files read and checked (run_files.py), the summary lines (texts.py) and the plots
(figures.py, shared with the study's figures)."""
