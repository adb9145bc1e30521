"""The websockets: a game's (`/ws/games/<id>/`) and a race's (`/ws/races/<code>/`), thin over play and races."""
