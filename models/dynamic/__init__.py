"""Dynamic routing between capsules (arxiv:1710.09829): the routing (``routing``: Procedure 1 and
the DigitCaps layer) and the networks (``capsnet``: PrimaryCaps, CapsNet, the CNN baselines)."""
