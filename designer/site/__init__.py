"""The floor plan: the Floor view and the site exports of the command line."""
