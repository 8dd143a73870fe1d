"""Self-attention routing, Efficient-CapsNet (arxiv:2101.12491): the routing (``routing``: eqs. 3-6
and the FCCaps layer), the network (``efficient_capsnet``), and the official Keras weights read
into it (``keras_weights``) and checked by an independent NumPy forward (``keras_reference``)."""
