"""The built-in radiology language engine: plain Python, no Django, no model weights.

See docs/nlp.md for the public API.
"""
