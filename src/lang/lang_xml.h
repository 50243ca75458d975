/* lang_xml.h - libxml2, opened with dlopen on first use (lang_urdf.c), for
 * the URDF reader and the COLLADA meshes it draws (lang_mesh_dae.c). Only
 * libxml2's headers are needed to build (XML_CFLAGS in the Makefile); the
 * functions come from dlsym.
 *
 * Layer-internal.
 */
#ifndef LG_LANG_XML_H
#define LG_LANG_XML_H

#include <stddef.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

typedef struct lang_xml_api {
  xmlDocPtr (*read_memory)(const char *, int, const char *, const char *, int);
  void (*free_doc)(xmlDocPtr);
  xmlNodePtr (*root)(const xmlDoc *);
  xmlChar *(*get_prop)(const xmlNode *, const xmlChar *);
  long (*line_no)(const xmlNode *);
  xmlErrorPtr (*last_error)(void);
  void (*reset_error)(void);
  xmlFreeFunc *free;
  int ok;        /* 0: libxml2 could not be loaded, for the reason in why */
  char why[200];
} lang_xml_api;

/* libxml2's functions, loaded once (thread-safe); never NULL, check ->ok. */
const lang_xml_api *lang_xml(void);

/* How every document is read: no network, no error printing, no CDATA
 * nodes; libxml2's default limits on depth (256) and text size. */
enum {
  LANG_XML_FLAGS = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                   XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA
};

/* The offset of the first "<!D" or "<!E" (any case) of src[0..len), at
 * line:col (len: none). XML read here may declare no document type and no
 * entity, so nothing is ever expanded. */
size_t lang_xml_has_dtd(const char *src, size_t len, int *line, int *col);

#endif
