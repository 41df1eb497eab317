/* plain.c -- a C input. */
int c_helper(int v)
{
	return v + 1;
}
