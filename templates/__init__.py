"""Report templates (jinja2) and their stylesheet, shipped inside the package."""
