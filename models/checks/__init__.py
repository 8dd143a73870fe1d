"""The wiki's custom checks: equation-level property checks and timing factories.

Each property check is ``fn(ctx: CheckContext) -> Evidence`` and is named in a card as
``models.checks.<module>:<function>``. It builds the model's layer, measures the property on
small float64 tensors against an independent implementation written from the paper's equation,
and returns ``measured=True/False`` with details that list every quantity it measured. The
measuring itself lives in a ``measure_*`` function that takes the implementation as an argument,
so tests can hand it a deliberately wrong variant and see it return False.

Modules: :mod:`.common` (findings -> evidence), :mod:`.squash`, :mod:`.losses`,
:mod:`.dynamic` (arxiv:1710.09829), :mod:`.self_attention` (arxiv:2101.12491),
:mod:`.inverted` (arxiv:2002.04764), :mod:`.timing` (factories for the built-in ``timing`` kind).
"""
