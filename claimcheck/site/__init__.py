"""The claimcheck site: a MkDocs plugin that shows every citation's verdict, and the renderer it
shares with ``claimcheck report``."""
