"""Self-attention routing, Efficient-CapsNet (arxiv:2101.12491): the network, and the official Keras
weights read into it and checked by an independent NumPy forward."""
