"""What the background workers do: the pipeline stages and the methods behind them.

Nothing in this package imports Django except ``workers/tasks.py``.
"""
