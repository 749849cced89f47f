"""Scene 7, "What speeds it up": every acceleration lever on the shared scenario, alone and then stacked.

The seed's thesis (1.1, and the end of 1.4): every speed-up sends fewer bytes
down the belt, gives the waiting worker something to do, or makes the belt
deliver more cleverly. One build per lever in those three groups
(``engine.levers.GROUPS``), each with its own control, then one that stacks
the levers the presenter switched on. Every figure is the engine's
(``engine.levers.lever_outcome`` and ``stacked``, asked through the kit).

``choices`` (the scene's one frozen control value and the engine settings it
means), ``asked`` (the engine questions), ``tables`` (the figure tables),
``growth`` (a lever's figure as a prompt, context or batch grows), ``pictures``
(the conveyor belt of scene 1, with each lever's parts), ``notes`` (the numbers
the texts quote) and ``story`` are Qt-free; ``controls`` and ``view`` are the Qt side.
"""
