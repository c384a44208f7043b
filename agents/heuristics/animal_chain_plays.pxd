# C types for the compiled build of animal_chain_plays.py (Cython reads this file next to
# the .py; setup.py). animal_chain_plays.py stays the only source of behaviour and runs
# unchanged as plain Python. Positions, types, sides and counters are C integers; position
# masks are C long long (boards have at most 45 positions; -1 means every position). Type
# and animal masks stay Python integers (decks may have over 64 types, boards 64 animals).
# tests/test_compiled.py checks that every name typed here exists in the .py.
cimport cython


cdef class PlayTables:
    cdef public Py_ssize_t num_positions, last_row
    cdef public bint chain_rule, rows_in_order
    cdef public list neighbours, attack_neighbours, left_animal, right_animal, row_of, type_bits
    cdef public list position_bits
    cdef public long long[::1] step_starts, step_targets, step_bits, step_sides, left_face, right_face
    cdef public list own_base, opponent_base
    cdef public object accepted_types
    cdef public long long own_base_bits, opponent_base_bits, own_attack_cells, opponent_attack_cells


@cython.locals(attack_neighbours=list, left_animal=list, right_animal=list, q=Py_ssize_t, n=Py_ssize_t,
               side=Py_ssize_t, top=Py_ssize_t)
cpdef attack_mask(PlayTables tables, list types, list targets, long long protected, long long linked)


@cython.locals(linked="long long", frontier=list, q=Py_ssize_t)
cpdef long long linked_mask(PlayTables tables, list types, list sources)


@cython.locals(joins=bint, targets="long long[::1]", bits="long long[::1]", i=Py_ssize_t)
cpdef long long linked_after(PlayTables tables, list types, list sources, long long before, Py_ssize_t played)


cpdef bint _connected(PlayTables tables, list types, Py_ssize_t q, Py_ssize_t p, Py_ssize_t i)


@cython.locals(starts="long long[::1]", targets="long long[::1]", bits="long long[::1]", sides="long long[::1]",
               left_face="long long[::1]", right_face="long long[::1]", k=Py_ssize_t, q=Py_ssize_t, p=Py_ssize_t,
               top=Py_ssize_t, i=Py_ssize_t, bit="long long", connected=bint)
cpdef long long _grow(PlayTables tables, list types, long long linked, list frontier)


@cython.locals(left=Py_ssize_t, right=Py_ssize_t, on_left=Py_ssize_t, on_right=Py_ssize_t, q=Py_ssize_t,
               side=Py_ssize_t, top=Py_ssize_t)
cpdef bint makes_double(PlayTables tables, list types, Py_ssize_t t, Py_ssize_t p)


@cython.locals(cancel="long long", here=Py_ssize_t, q=Py_ssize_t, side=Py_ssize_t, there=Py_ssize_t, connected=bint)
cpdef long long cancelled_doubles(PlayTables tables, list types, long long doubles, Py_ssize_t p)


@cython.locals(chain_rule=bint, own_base=list, opponent_base=list, own_cells="long long", opponent_cells="long long",
               own_targets="long long", opponent_targets="long long", doubles="long long",
               mine_now="long long", theirs_now="long long", mine_linked="long long", theirs_linked="long long",
               race=Py_ssize_t, threats=dict, attacks=dict, cancels=list, mine_without=list, theirs_without=list, cancel="long long", plays=list, action=Py_ssize_t,
               t=Py_ssize_t, p=Py_ssize_t, new_types=list, double=bint, protected_mine="long long",
               protected_theirs="long long", kept_mine="long long", changed=bint)
cpdef tuple play_parts(PlayTables tables, list candidates, list types, list hand, hand_mask, list face_down,
                       long long mine, long long theirs, chance, bint with_pass)
