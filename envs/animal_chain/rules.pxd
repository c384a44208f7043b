# C types for the compiled build of rules.py (Cython reads this file next to the
# .py; setup.py). rules.py stays the only source of behaviour and runs
# unchanged as plain Python. Every integer typed here is a small index
# (a seat, a type, a position, an action id, a byte), never a position mask
# (except in _play_flags, said there).
cimport cython


@cython.locals(seat=Py_ssize_t, flags=bytearray, t=Py_ssize_t, j=Py_ssize_t, p=Py_ssize_t)
cpdef bytes _build_flags(game, state)


# the one place where position masks are C integers: the board has at most MAX_BOARD_CARDS (45)
# positions (data.py), so they fit 64 bits, and the masks of every type in hand are C operations
@cython.locals(seat=Py_ssize_t, P=Py_ssize_t, take=Py_ssize_t, flags=bytearray, t=Py_ssize_t, first=Py_ssize_t,
               k=Py_ssize_t, byte=Py_ssize_t, p=Py_ssize_t, offsets=tuple, left=Py_ssize_t, right=Py_ssize_t,
               hand=list, links=list, play_id=list, type_links=list,
               playable=cython.ulonglong, mask=cython.ulonglong, left_mask=cython.ulonglong, right_mask=cython.ulonglong)
cpdef bytes _play_flags(game, state)


# ``p`` stays a Python integer: ``1 << p`` is a position bit
@cython.locals(tops=list, links=list, old=Py_ssize_t, new=Py_ssize_t, gone=Py_ssize_t, seat=Py_ssize_t, r=Py_ssize_t)
cpdef _set_top(game, state, p, Py_ssize_t top)



# the chain rule: position masks stay Python integers; positions, tops and indexes are C integers
@cython.locals(reached=bytearray, linked=list, chain_steps=list, k=Py_ssize_t, q=Py_ssize_t, p=Py_ssize_t,
               top=Py_ssize_t, there=Py_ssize_t, mine=list, theirs=list, tops=list)
cpdef list _linked_positions(game, tops, sources)


@cython.locals(p=Py_ssize_t)
cpdef _positions_mask(game, list positions)


cpdef _linked_mask(game, tops, sources)


@cython.locals(links=list, tops=list, contributions=list, q=Py_ssize_t, i=Py_ssize_t, positions=list)
cpdef _chain_links(game, state, Py_ssize_t seat, positions)


@cython.locals(linked=list)
cpdef _rebuild_chain(game, state, Py_ssize_t seat)


@cython.locals(tops=list, top=Py_ssize_t, seat=Py_ssize_t, q=Py_ssize_t, r=Py_ssize_t, shown=Py_ssize_t, added=list,
               k=Py_ssize_t, mine=list, theirs=list)
cpdef _update_chains(game, state, p, bit)
