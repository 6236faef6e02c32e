"""Search-guided self-play (expert iteration, multiplayer AlphaZero): Gumbel max^n search, config, trainer."""
