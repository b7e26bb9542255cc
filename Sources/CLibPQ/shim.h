#ifndef PUSHGATE_CLIBPQ_SHIM_H
#define PUSHGATE_CLIBPQ_SHIM_H
// libpq's calls the store makes (PQconnectdbParams, PQprepare, PQexecPrepared, PQexec) are
// not variadic and use no macros Swift cannot import: the header alone is enough.
#include <libpq-fe.h>
#endif
