"""Small models for the examples and smoke tests (``ezpz.models.minimal``), as the Python ezpz names them.

Importing a model module imports torch; ``import ezpz`` and ``import ezpz.models`` do not.
"""
