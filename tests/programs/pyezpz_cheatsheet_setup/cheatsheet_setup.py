import ezpz
rank = ezpz.setup_torch()          # returns global rank
local_rank = ezpz.get_local_rank()
world_size = ezpz.get_world_size()
