"""Dynamic routing between capsules (arxiv:1710.09829): the routing and CapsNet."""
