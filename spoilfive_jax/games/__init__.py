"""The package's own games, registered here in a fixed order (``registry.register``): Spoil
Five, then the Forty-Five family (one class, three ids by rules preset)."""

from spoilfive_jax.games.forty_five import FortyFive
from spoilfive_jax.games.spoil_five import SpoilFive
from spoilfive_jax.registry import register

register("spoil_five", SpoilFive)
register("forty_five", FortyFive)
register("twenty_five", FortyFive, preset="twenty_five")
register("auction_forty_fives", FortyFive, preset="auction_forty_fives")
