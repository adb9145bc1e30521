"""URLs of the boards API."""

urlpatterns: list = []
