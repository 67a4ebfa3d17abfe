"""The results model: plain data that flows from the analysis to the renderers."""
