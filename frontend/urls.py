"""URLs of the web pages."""

from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
]
