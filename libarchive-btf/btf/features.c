// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Named BTF features: pahole's --btf_features vocabulary and list syntax.
 *
 * A list is comma-separated names. Every name it holds is switched on,
 * every name it does not hold stays off, and lists given one after the
 * other add up (the caller starts from a mask of 0 and passes the same
 * mask to each). "default" (and "all", pahole 1.26's word for it) stands
 * for pahole's default set; a list that starts with '+' is the default
 * set plus the names that follow. Empty names (",,") are skipped, as
 * strtok() skips them in pahole. An unknown name is an error here, as
 * with pahole's --btf_features_strict; btf-link's --btf_features, as
 * pahole's, parses such a list name by name and ignores what it does not
 * know. Whether a link can do a feature is the linker's question, not the
 * parser's (abtf_btf_features__supported()).
 */
#include <errno.h>
#include <string.h>

#include "util/internal.h"
#include "btf/features.h"

struct feature {
	const char *name;
	unsigned int bit;
};

/* pahole's table, in pahole's order (its --supported_btf_features order). */
static const struct feature features[] = {
	{ "encode_force",	ABTF_FEAT_ENCODE_FORCE },
	{ "var",		ABTF_FEAT_VAR },
	{ "float",		ABTF_FEAT_FLOAT },
	{ "decl_tag",		ABTF_FEAT_DECL_TAG },
	{ "type_tag",		ABTF_FEAT_TYPE_TAG },
	{ "enum64",		ABTF_FEAT_ENUM64 },
	{ "optimized_func",	ABTF_FEAT_OPTIMIZED_FUNC },
	{ "consistent_func",	ABTF_FEAT_CONSISTENT_FUNC },
	{ "decl_tag_kfuncs",	ABTF_FEAT_DECL_TAG_KFUNCS },
	{ "reproducible_build",	ABTF_FEAT_REPRODUCIBLE_BUILD },
	{ "distilled_base",	ABTF_FEAT_DISTILLED_BASE },
	{ "global_var",		ABTF_FEAT_GLOBAL_VAR },
	{ "attributes",		ABTF_FEAT_ATTRIBUTES },
	{ "true_signature",	ABTF_FEAT_TRUE_SIGNATURE },
	{ "layout",		ABTF_FEAT_LAYOUT },
};

ABTF_API const char *abtf_btf_feature__name(unsigned int feature)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (features[i].bit == feature)
			return features[i].name;
	return NULL;
}

ABTF_API int abtf_btf_feature__by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (!strcmp(features[i].name, name))
			return features[i].bit;
	return -ENOENT;
}

/* One name of a list, @len bytes at @name, into @mask. */
static int parse_name(const char *name, size_t len, unsigned int *mask)
{
	char buf[32];
	int bit;

	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (!strcmp(buf, "default") || !strcmp(buf, "all")) {
		*mask |= ABTF_FEATS_PAHOLE_DEFAULT;
		return 0;
	}
	bit = abtf_btf_feature__by_name(buf);
	if (bit < 0)
		return bit;
	*mask |= bit;
	return 0;
}

ABTF_API int abtf_btf_features__parse(const char *list, unsigned int *mask)
{
	unsigned int m = ABTF_FEATS_GIVEN;
	const char *p, *end;
	int err;

	if (!list || !mask)
		return -EINVAL;
	if (*list == '+') {
		m |= ABTF_FEATS_PAHOLE_DEFAULT;
		list++;
	}
	for (p = list; ; p = end + 1) {
		end = strchrnul(p, ',');
		err = parse_name(p, end - p, &m);
		if (err)
			return err;
		if (!*end)
			break;
	}
	*mask |= m;
	return 0;
}

ABTF_API unsigned int abtf_btf_features__supported(void)
{
	return ABTF_FEATS_SUPPORTED;
}

/*
 * The features of a link asked for @asked (abtf_link_opts.features), or
 * -EOPNOTSUPP with one message per feature it cannot honour.
 */
int abtf__link_features(unsigned int asked, const struct abtf_printer *pr,
			const char *path, unsigned int *feats)
{
	unsigned int want = asked ? asked & ~ABTF_FEATS_GIVEN :
			    ABTF_FEATS_DEFAULT;
	unsigned int bad = want & ~ABTF_FEATS_SUPPORTED;
	unsigned int bit;

	for (bit = 1; bit; bit <<= 1) {
		const char *name = abtf_btf_feature__name(bit);

		if (!(bad & bit))
			continue;
		if (name)
			pr_warn(pr, "%s: BTF feature '%s' is not supported yet",
				path, name);
		else
			pr_warn(pr, "%s: 0x%x is not a BTF feature", path, bit);
	}
	if (bad)
		return -EOPNOTSUPP;
	*feats = want;
	return 0;
}
