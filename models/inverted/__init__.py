"""Inverted dot-product attention routing (arxiv:2002.04764): the routing layers, the convolutional
capsule layer, and the CIFAR networks."""
