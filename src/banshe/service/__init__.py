"""The director service: a FastAPI app around the pure engine (`create_app`, `GameService`)."""
