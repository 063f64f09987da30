"""banshe (版杀): an automated director for Chinese forum werewolf games."""

__version__ = "0.1.0"
