"""One game between two players: the referee and how a game ended by two passes is scored."""
