"""Play: deals, games and their actions; the one path that changes a game. Knows no race and no daily."""
