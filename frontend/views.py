"""Page views of the web front end."""

from django.shortcuts import render


def home(request):
    return render(request, "frontend/home.html")
