"""Scene "Serving many users": from one request to a fleet, priced per language (issue 22, DESIGN.md scene 8).

How many GPUs serve a traffic within its P90 latency targets, and what a
million tokens then costs: the question, latency against load at the plan's
fleet (the knee), the fleet on its nodes and what binds it, the same content
priced in Chinese and English from real tokenizers, when separate prefill and
decode pools pay, and the answer. Every figure is ``engine.plan``'s simulation,
asked off the UI thread.
"""
