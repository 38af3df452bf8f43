"""Issue 38's peer benchmark: this server against boardgame.io and Colyseus (section.py)."""
