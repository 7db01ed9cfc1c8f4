"""Server-rendered pages and websockets: the top layer, beside the REST API (``api``)."""
