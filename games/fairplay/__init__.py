"""Fair play (SPEC 11): the automatic review of results, players' reports, moderators' verdicts and marks."""
