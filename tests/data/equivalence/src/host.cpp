// host.cpp -- plain C++ host code.
#include <string>
int host_helper(int v)
{
	return static_cast<int>(std::to_string(v).size()) + v;
}
