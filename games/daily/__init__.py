"""The daily challenge: the day's deal, ranked play, leaderboards and statistics, and its rules on play."""
