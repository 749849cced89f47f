"""Scene "one token at a time" (seed 1.3): the answer made pass by pass, each pass reading all the weights.

The question and the answer cut by a real tokenizer; the first passes one build
each (the prefill, the first decode step), then the rest of the answer playing
by itself up to the end marker, then the seed's three misconceptions.
``story`` decides (with ``pictures`` for what each widget draws), ``view``
shows, ``controls`` are its side-panel controls.
"""
