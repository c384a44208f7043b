# C types for the compiled build of observation.py (Cython reads this file next to
# the .py; setup.py). observation.py stays the only source of behaviour and runs
# unchanged as plain Python. The observer becomes an extension type, so that the
# encoder reads its offsets from C fields, and ``view`` is a typed float32 view of
# the seat's picture, so that every write is a C store. Every integer typed here is
# an offset, a seat, a position, a type, an animal, a phase or a small count.
# tests/test_compiled.py checks that every name typed here exists in the .py.
cimport cython

# phases and tops, as C constants: comparisons without a module lookup (observation.py imports them from rules.py)
cdef Py_ssize_t BUILD, PLAY, OVER, FACE_DOWN, HOLE


cdef class AnimalChainObserver:
    cdef public object game, layout, fresh
    cdef public tuple own_base, frame_position, hand_slot, left_shown, right_shown
    cdef public list shown
    # the board facts each seat's picture shows (observation.py: AnimalChainObserver.forget)
    cdef public long long[::1] shown_tops, shown_owners, shown_heights, shown_drawn
    cdef public Py_ssize_t hole_at, face_down_at, left_at, right_at, my_double_at, opponent_double_at, height_at
    cdef public Py_ssize_t my_hand_size_at, opponent_hand_size_at, deck_size_at, building_phase_at, play_phase_at
    cdef public Py_ssize_t over_phase_at, my_turn_at, seat_0_at, seat_1_at, building_at, passes_at, turn_at
    cdef public Py_ssize_t num_positions, num_types, num_animals, num_cards, max_turns, max_swaps, base_size
    cdef public bint per_position

    # lists (the state's and the observer's) are read by C index; their items stay Python objects until assigned to a C local
    @cython.locals(view="float[::1]", P=Py_ssize_t, A=Py_ssize_t, t=Py_ssize_t, p=Py_ssize_t, i=Py_ssize_t,
                   j=Py_ssize_t, top=Py_ssize_t, owner=Py_ssize_t, height=Py_ssize_t, count=Py_ssize_t,
                   phase=Py_ssize_t, to_move=Py_ssize_t, building=bint,
                   left_at=Py_ssize_t, right_at=Py_ssize_t, shown=list, at=Py_ssize_t, shown_tops="long long[::1]",
                   shown_owners="long long[::1]", shown_heights="long long[::1]", last_hand=list, hand=list, hand_slot=list, tops=list, stacks=list, owners=list,
                   redraw=list, own_base=list, frame_position=list, left_shown=list, right_shown=list, hand_sizes=list,
                   drawn=Py_ssize_t, stack=list, last=Py_ssize_t)
    cpdef encode(self, state, Py_ssize_t seat)
