"""Domain Wheel: rules engine and reinforcement-learning environments."""
