# C types for the compiled build of animal_chain_plays.py (Cython reads this file next to
# the .py; setup.py). animal_chain_plays.py stays the only source of behaviour and runs
# unchanged as plain Python. Positions, types, sides and counters are C integers; position
# masks are C long long (boards have at most 45 positions; -1 means every position), animal
# masks C unsigned long long (decks have at most 64 animals). Type masks stay Python integers
# (decks may have over 64 types). tests/test_compiled.py checks that every name typed here
# exists in the .py.
cimport cython

cdef Py_ssize_t _OTHER, _PLAY, _PASS, _LEFT, _FACE_DOWN


cdef class PlayTables:
    cdef public Py_ssize_t num_positions, num_types, num_animals, last_row, num_actions, num_seats
    cdef public bint chain_rule
    cdef public long long[::1] step_starts, step_targets, step_bits, step_sides, left_face, right_face
    cdef public long long[::1] neighbour_starts, neighbour_targets, neighbour_sides
    cdef public long long[::1] attack_starts, attack_targets, attack_sides
    cdef public long long[::1] left_animal, right_animal, row_of, own_base, opponent_base
    cdef public object accepted_types
    cdef public long long own_base_bits, opponent_base_bits
    cdef public Py_ssize_t left_at, right_at, hand_at, face_down_at, my_double_at, opponent_double_at, seat_at
    cdef public Py_ssize_t opponent_hand_at
    cdef public long long[::1] type_of_animals, copies_in_frame, action_kinds, action_types, action_positions
    cdef public long long[::1] exposure_bases, exposure_sides, start_bases, start_sides


@cython.locals(starts="long long[::1]", neighbours="long long[::1]", sides="long long[::1]", one=cython.ulonglong,
               left_animals=cython.ulonglong, right_animals=cython.ulonglong, j=Py_ssize_t, q=Py_ssize_t, i=Py_ssize_t,
               n=Py_ssize_t, top=Py_ssize_t)
cpdef void attack_animals(PlayTables tables, long long[::1] types, long long[::1] targets, long long protected,
                          long long linked, unsigned long long[::1] found)


cpdef bint _accepts(PlayTables tables, Py_ssize_t t, cython.ulonglong left_animals, cython.ulonglong right_animals)


@cython.locals(count=Py_ssize_t, linked="long long", one="long long", j=Py_ssize_t, q=Py_ssize_t)
cpdef long long linked_mask(PlayTables tables, long long[::1] types, long long[::1] sources, long long[::1] frontier)


@cython.locals(top="long long", linked="long long")
cpdef long long linked_without(PlayTables tables, long long[::1] types, long long[::1] sources, Py_ssize_t p,
                               long long[::1] frontier)


@cython.locals(joins=bint, targets="long long[::1]", bits="long long[::1]", i=Py_ssize_t, j=Py_ssize_t,
               one="long long")
cpdef long long linked_after(PlayTables tables, long long[::1] types, long long[::1] sources, long long before,
                             Py_ssize_t played, long long[::1] frontier)


cpdef bint _connected(PlayTables tables, long long[::1] types, Py_ssize_t q, Py_ssize_t p, Py_ssize_t i)


@cython.locals(starts="long long[::1]", targets="long long[::1]", bits="long long[::1]", sides="long long[::1]",
               left_face="long long[::1]", right_face="long long[::1]", k=Py_ssize_t, q=Py_ssize_t, p=Py_ssize_t,
               top=Py_ssize_t, i=Py_ssize_t, bit="long long", connected=bint)
cpdef long long _grow(PlayTables tables, long long[::1] types, long long linked, long long[::1] frontier,
                      Py_ssize_t count)


@cython.locals(row_of="long long[::1]", last_row=Py_ssize_t, ours=Py_ssize_t, nearest=Py_ssize_t, p=Py_ssize_t)
cpdef Py_ssize_t chain_race(PlayTables tables, long long mine_linked, long long theirs_linked)


@cython.locals(left=Py_ssize_t, right=Py_ssize_t, on_left=Py_ssize_t, on_right=Py_ssize_t, i=Py_ssize_t,
               top=Py_ssize_t)
cpdef bint makes_double(PlayTables tables, long long[::1] types, Py_ssize_t t, Py_ssize_t p)


@cython.locals(one="long long", cancel="long long", here=Py_ssize_t, i=Py_ssize_t, q=Py_ssize_t, there=Py_ssize_t,
               connected=bint)
cpdef long long cancelled_doubles(PlayTables tables, long long[::1] types, long long doubles, Py_ssize_t p)


@cython.locals(P=Py_ssize_t, T=Py_ssize_t, A=Py_ssize_t, left_at=Py_ssize_t, right_at=Py_ssize_t, p=Py_ssize_t,
               left=Py_ssize_t, right=Py_ssize_t, shown=bint, a=Py_ssize_t, seat=Py_ssize_t, s=Py_ssize_t,
               t=Py_ssize_t)
cpdef Py_ssize_t read_position(PlayTables tables, const float[::1] vector, long long[::1] types, long long[::1] hand,
                               long long[::1] unseen)


@cython.locals(hits="long long", t=Py_ssize_t)
cpdef long long _hits(PlayTables tables, long long[::1] unseen, cython.ulonglong left_animals,
                      cython.ulonglong right_animals)


@cython.locals(i=Py_ssize_t)
cpdef Py_ssize_t _pair_index(unsigned long long[::1] lefts, unsigned long long[::1] rights, Py_ssize_t known,
                             cython.ulonglong left, cython.ulonglong right)


@cython.locals(P=Py_ssize_t, T=Py_ssize_t, block="long long[::1]", types="long long[::1]", hand="long long[::1]",
               unseen="long long[::1]",
               held=Py_ssize_t, kinds="long long[::1]", cards="long long[::1]", positions="long long[::1]",
               opponent_targets="long long", wins_now=list, plays=list, passes=list, a=Py_ssize_t,
               total_unseen="long long", held_types="long long[::1]", num_held=Py_ssize_t, t=Py_ssize_t,
               one="long long", mine="long long", theirs="long long", p=Py_ssize_t,
               own_base="long long[::1]", opponent_base="long long[::1]", chain_rule=bint,
               mine_now="long long", theirs_now="long long", mine_linked="long long", theirs_linked="long long",
               race=Py_ssize_t, lefts="unsigned long long[::1]", rights="unsigned long long[::1]", known=Py_ssize_t,
               chances=list, masks=list, wins=list, cancels="long long[::1]", mine_without="long long[::1]",
               theirs_without="long long[::1]", n=Py_ssize_t, j=Py_ssize_t, passing=bint, double=bint,
               protected_mine="long long", kept_mine="long long", protected_theirs="long long", cancel="long long",
               shown=Py_ssize_t, threat=Py_ssize_t, win=Py_ssize_t, w=Py_ssize_t, protected="long long",
               left=cython.ulonglong, right=cython.ulonglong, k=Py_ssize_t, offence=bint, i=Py_ssize_t, u=Py_ssize_t,
               frontier="long long[::1]", found="unsigned long long[::1]", _move=Py_ssize_t)
cpdef tuple measure(PlayTables tables, const float[::1] vector, const signed char[::1] mask, double[:, ::1] out,
                    bint with_wins)


@cython.locals(one=cython.ulonglong, left_animals=cython.ulonglong, right_animals=cython.ulonglong, i=Py_ssize_t)
cpdef void _base_animals(PlayTables tables, long long[::1] bases, long long[::1] sides, long long[::1] base,
                         unsigned long long[::1] found)


@cython.locals(count=Py_ssize_t)
cpdef Py_ssize_t _bits(cython.ulonglong mask)


@cython.locals(found="unsigned long long[::1]")
cpdef long long base_exposure(PlayTables tables, long long[::1] base, long long[::1] unseen)


@cython.locals(one=cython.ulonglong, left_animals=cython.ulonglong, right_animals=cython.ulonglong, t=Py_ssize_t,
               sides=Py_ssize_t, found="unsigned long long[::1]")
cpdef tuple base_key(PlayTables tables, long long[::1] base, long long[::1] hand, long long[::1] unseen)
