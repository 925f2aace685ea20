//go:build !amd64

package codec

// lumaKernelSwitch is amd64's (colourloop_amd64_test.go): here the Go
// paths alone.
type lumaKernelSwitch struct {
	name    string
	kernels bool
	target  bool
	set     func() (restore func())
}

func lumaKernelSwitches() []lumaKernelSwitch {
	return []lumaKernelSwitch{{"Go", false, false, func() func() { return func() {} }}}
}
