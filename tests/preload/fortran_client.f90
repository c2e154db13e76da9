! A Fortran program on the system BLAS (gfortran ... -lblas), run under libozblas_preload.so by
! run_fortran.sh: DGEMM, DGEMV, DDOT on an ill-conditioned case no binary64 summation order
! gets right (exact answer 1 + 1e16*2^-52), plus bigger products whose bits are printed (as
! hexadecimal) so that runs with different thread counts can be compared.
program fortran_client
  implicit none
  double precision, external :: ddot
  double precision :: x(3), y(3), a(2,3), c(2,2), b(3,2), v(2), exact, r
  double precision, allocatable :: p(:,:), q(:,:), s(:,:), u(:), w(:)
  integer :: i, j, n, fails
  integer(8) :: h
  fails = 0
  exact = 1.0d0 + 1.0d16 * 2.0d0**(-52)
  x = (/ 1.0d16, 1.0d0, -1.0d16 /)
  y = (/ 1.0d0 + 2.0d0**(-52), 1.0d0, 1.0d0 /)
  a(1,:) = x
  a(2,:) = x
  b(:,1) = y
  b(:,2) = y
  r = ddot(3, x, 1, y, 1)
  call dgemv('n', 2, 3, 1.0d0, a, 2, y, 1, 0.0d0, v, 1)
  call dgemm('N', 'N', 2, 2, 3, 1.0d0, a, 2, b, 3, 0.0d0, c, 2)
  print '(a, es25.17)', 'ddot  ', r
  print '(a, 2es25.17)', 'dgemv ', v
  print '(a, 4es25.17)', 'dgemm ', c
  print '(a, es25.17)', 'exact ', exact
  if (r /= exact) fails = fails + 1
  if (any(v /= exact)) fails = fails + 1
  if (any(c /= exact)) fails = fails + 1
  ! transposed operands ('T', 'c'): C = A^T B^T with A^T = rows x, B^T = columns y
  call dgemm('t', 'C', 2, 2, 3, 1.0d0, transpose(a), 3, transpose(b), 2, 0.0d0, c, 2)
  if (any(c /= exact)) fails = fails + 1
  ! bigger: deterministic wide-range data
  n = 200
  allocate(p(n,n), q(n,n), s(n,n), u(n), w(n))
  do j = 1, n
    do i = 1, n
      p(i,j) = sin(dble(i * 7 + j * 13)) * 2.0d0**mod(i * j, 31)
      q(i,j) = cos(dble(i * 5 - j * 3)) * 2.0d0**(-mod(i + j, 29))
    end do
  end do
  call dgemm('N', 'T', n, n, n, 1.5d0, p, n, q, n, 0.0d0, s, n)
  call dgemv('T', n, n, 1.0d0, p, n, q(:,1), 1, 0.0d0, u, 1)
  w(1) = ddot(n, p(:,2), 1, q(2,:), 1)
  h = 0
  do j = 1, n
    do i = 1, n
      h = ieor(h * 31_8, transfer(s(i,j), h))
    end do
    h = ieor(h * 31_8, transfer(u(j), h))
  end do
  h = ieor(h, transfer(w(1), h))
  print '(a, z16.16)', 'bits  ', h
  if (fails /= 0) then
    print '(a, i0, a)', 'FAIL: ', fails, ' results not correctly rounded'
    stop 1
  end if
end program fortran_client
