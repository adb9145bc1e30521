"""Fair play (docs/fair-play.md): the automatic review of results, players' reports, moderators' verdicts and marks."""
