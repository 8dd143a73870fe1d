"""Wrong variants: the bugs public ports of the three papers really have, as marked functions.

A wrong variant is a public zero-argument function marked ``@wrong_variant`` (from
``claimcheck``). Calling it breaks the content model *in place*, in the check's own isolated
process, right before the check runs: it rebinds a module attribute or a class attribute of
``models.*`` (through :func:`models.variants.patching.replace`, the one place that mutates) and
never touches the checks' own reference code. A power run (``claimcheck verify --power``) runs a
claim's check once per variant its card lists under ``catches:``; the variant is *caught* when the
claim is no longer verified. A card names a variant by its function name with ``_`` -> ``-``.

Modules, one per part of the model:

* :mod:`.dynamic`: dynamic routing (arxiv:1710.09829 Procedure 1) and CapsNet's layers;
* :mod:`.self_attention`: self-attention routing and Efficient-CapsNet (arxiv:2101.12491);
* :mod:`.inverted`: inverted dot-product attention routing (arxiv:2002.04764) and its network;
* :mod:`.squash`: the two squash functions; :mod:`.losses`: margin and reconstruction losses;
* :mod:`.stems`: what feeds the primary capsules; :mod:`.decoders`: the reconstruction decoders;
* :mod:`.weights`: the port of the official Efficient-CapsNet Keras weights.

The table of which claim catches which variant is in ``models/variants/README.md``.
"""
