"""Vector search shared by the reference libraries (text reports and images)."""
