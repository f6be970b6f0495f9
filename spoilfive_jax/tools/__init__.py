"""The generic tools, written once for every game (they import no game package and reach each
game through ``core.env.Env``'s hooks):

- ``rollout``: ``rollout`` and ``RolloutResult``, millions of independent hands;
- ``scorer``: ``score_hands``, what a hand is worth to a seat that knows its cards;
- ``tournament``: ``evaluate`` and ``TournamentResult``, policies compared on common deals;
- ``session``: ``play_sessions`` (the game's sessions) and ``auto_reset`` (pgx-style);
- ``policies``: policy specs (a name, a callable, one per seat), ``Lineup`` and ``play_out``, the
  one loop that plays a hand through ``env.step``;
- ``sharding``: batch sizes and spreading a batch over the devices;
- ``chunks``: the calls a run of any size is cut into, and the keys of hands past 2**32.

``rollout``, ``score_hands``, ``evaluate`` and ``play_sessions`` take ``per_hand``: False streams
(each call reduced on the device to the summary's statistics, ``core.stats``), in memory that
does not grow with the number of hands.
"""
