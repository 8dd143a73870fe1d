"""The wiki's custom checks: equation-level property checks and timing factories.

Each property check is ``fn(ctx: CheckContext) -> Evidence`` and is named in a card as
``models.checks.<module>:<function>``. It builds the model's layer, measures the property on
small float64 tensors against an independent implementation written from the paper's equation,
and returns ``measured=True/False`` with details that list every quantity it measured. The
measuring itself lives in a ``measure_*`` function that takes the implementation as an argument,
so tests can hand it a deliberately wrong variant and see it return False.

Every finding compares something measured on the model with a bound that the model could miss;
how far a known wrong variant lands from the reference is reported as context in the details,
never as a finding. Each property has a test in ``tests/content`` where a wrong variant (a bug
that public ports have) makes it fail.

Modules: :mod:`.common` (findings -> evidence), :mod:`.squash`, :mod:`.losses`,
:mod:`.reconstruction` (the training loss's decoder term), :mod:`.dynamic` (arxiv:1710.09829),
:mod:`.self_attention` (arxiv:2101.12491), :mod:`.inverted` and :mod:`.inverted_network`
(arxiv:2002.04764, one layer and the whole network), :mod:`.permutation` (symmetries shared by
the three rules), :mod:`.layout` (primary capsules and stems), :mod:`.init` (initial values),
:mod:`.routing_paths` (chosen predictions through a routing layer's own forward),
:mod:`.edge_gradients` (routing gradients at edge inputs against finite differences),
:mod:`.gradients` (gradients that a detached input cannot turn into an error),
:mod:`.independence` (repeated calls and batch positions through the whole network),
:mod:`.fast_paths` (a sped-up computation equal to the plain one, with gradients),
:mod:`.timing` (factories for the built-in ``timing`` kind), :mod:`.cost` (model factories for
the built-in ``flops`` kind), :mod:`.official_weights` (the released Efficient-CapsNet weights in
the port) and :mod:`.ablations` (the papers' ablations at CPU scale, decided by confidence
intervals).
"""
